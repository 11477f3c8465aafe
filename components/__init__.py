"""One Pulumi ComponentResource per concept; each takes a typed args model."""
