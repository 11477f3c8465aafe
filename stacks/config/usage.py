"""`gpu-ci:usage`: how much GPU CI a project runs, which the cost estimate prices."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class Usage(BaseModel):
    """How much GPU CI a project runs; what scale-to-zero capacity is billed for."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    jobsPerDay: float = Field(10, ge=0, description="GPU jobs a day, averaged over a month")
    minutesPerJob: float = Field(
        60, gt=0, description="GPU minutes per job (Kubeflow Trainer's GPU e2e takes ~60)"
    )
    overheadMinutesPerJob: float = Field(
        8, ge=0, description="VM launch, boot and teardown billed around each job"
    )
