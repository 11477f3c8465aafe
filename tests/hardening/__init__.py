"""Hostile input and host faults, across the program."""
