"""`check-charts`: each Helm release a plan records, rendered by `helm template` from its real
chart and checked with nothing deployed (every object through kubectl-validate, every value
the stack sets required to change what Helm renders, each at the key that set it).

It needs Helm, kubectl-validate and the charts, so it is not part of the plan, which needs
none of them; it may import the rest of the offline engine (records, values, stack files).
"""
