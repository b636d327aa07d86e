"""Memory inspector: see what an agent's long-term memory believes and why, and curate it."""
