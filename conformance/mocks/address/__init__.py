"""The address mock: a deterministic SQLite register, its query layer and the HTTP app."""
