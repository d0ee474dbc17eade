"""One rule per module; the registry (`rules/registry.py`) lists them."""
