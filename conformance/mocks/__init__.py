"""Local mock servers: faithful by default, misbehaving on purpose when a fault is on."""
