"""The changelog domain: `analysis` (base vs head entries, bytes and placement) and its rules."""
