"""What every layer shares and nothing of ours is below: the error a user can fix, and YAML
read and written as the Go tools downstream (Pulumi, Helm, AICR) read it."""
