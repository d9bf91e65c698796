"""Per-instance connection pool sizing for the API fleet."""

MIN_POOL = 2
MAX_POOL = 50


def pool_size(db_max: int, reserved: int, instances: int) -> int:
    """Connections one instance may open: the database's limit minus the admin reserve,
    shared evenly between the instances, capped at MAX_POOL."""
    if reserved < 0:
        raise ValueError(f"negative admin reserve: {reserved}")
    if reserved >= db_max:
        raise ValueError(f"admin reserve {reserved} leaves nothing of {db_max} connections")
    share = (db_max - reserved) // instances
    if share < MIN_POOL:
        raise ValueError(
            f"{db_max - reserved} connections for {instances} instances is less than "
            f"{MIN_POOL} each"
        )
    return min(MAX_POOL, share)
