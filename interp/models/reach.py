"""How a model name is reached: interp's own client where it speaks the provider's protocol,
handed to litellm if a hosted provider refuses it; litellm for everything else (and for every
model with INTERP_TRANSPORT=litellm). The provider table decides (providers.py)."""

from __future__ import annotations

from typing import Any

from interp.models.handover import HandOver
from interp.models.litellm.model import LiteLLMModel
from interp.models.wire.model import WireModel
from interp.models.wire.route import provider_for


def model_for(name: str, api_base: str | None = None, api_key: str | None = None,
              **options: Any) -> WireModel | HandOver | LiteLLMModel:
    """The Model for a model name (settings as StreamedModel's: timeouts, max_tokens, ...)."""
    row = provider_for(name, api_base, api_key)
    if row is None:
        return LiteLLMModel(name, api_base, api_key, **options)
    refusable = row.host is not None or row.protocol == "azure"
    own = WireModel(name, row, api_base, api_key, refusable=refusable, **options)
    return HandOver(own, LiteLLMModel(name, api_base, api_key, **options)) if refusable else own
