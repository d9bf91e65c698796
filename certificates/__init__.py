"""certificates layer of derivative."""
