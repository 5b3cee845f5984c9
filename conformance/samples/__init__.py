"""Address samples: their contracts, verified on the server, and their discovery."""
