"""`gpu-ci:arc.failedRunnerCleanup`: what the `FailedRunnerCleanup` component
(components/arc/cleanup.py) takes: when its CronJob runs and the kubectl image it runs."""

from __future__ import annotations

import re

from pydantic import Field, field_validator

from components.arc.k8s_types import PinnedImage
from components.config_base import ConfigModel
from components.pins import ARC_PINS

_CRON = re.compile(r"[0-9*/,-]+( +[0-9*/,-]+){4}")  # five fields, spaces between


class FailedRunnerCleanup(ConfigModel):
    """A CronJob deleting EphemeralRunners whose phase is Failed (they block scale-up)."""

    schedule: str = Field("*/10 * * * *", description="when it runs (five-field cron)")
    image: PinnedImage = Field(
        ARC_PINS.cleanup_image, description="kubectl with a shell, by tag or digest"
    )

    @field_validator("schedule")
    @classmethod
    def _cron(cls, schedule: str) -> str:
        if not _CRON.fullmatch(schedule):
            raise ValueError("not a five-field cron schedule like '*/10 * * * *'")
        return schedule
