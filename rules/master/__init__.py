"""The master-config domain: `analysis` (keys, rows, images, recipe references) and its rules."""
