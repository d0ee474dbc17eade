"""The numeric-claims domain: `parse` (arithmetic stated in comments and descriptions) and its rules."""
