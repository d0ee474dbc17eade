"""The serving domain: what the benchmarked engines are told to do."""
