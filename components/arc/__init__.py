"""The ARC capacity: controller, runner scale sets, failed-runner cleanup, OKE cluster."""
