"""HTTP plumbing: recorded exchanges, redaction, and the paced client."""
