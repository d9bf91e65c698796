"""grammar layer of derivative."""
