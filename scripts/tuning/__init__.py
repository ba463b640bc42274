"""tune: the guide's experiments run on the reader's own model, each an A/B with an interval."""
