"""Rules over any changed YAML file, whatever its kind: validity and header comments."""
