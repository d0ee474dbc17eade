"""The recipe domain: `points` (base ⊕ overrides per benchmark point and role) and its rules."""
