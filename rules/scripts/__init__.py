"""The benchmark-script domain: `parse` (logical commands and their conditions) and its rules."""
