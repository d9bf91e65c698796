"""solver layer of derivative."""
