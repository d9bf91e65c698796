"""forge layer of derivative."""
