"""What several CuTe DSL rules share that is not a fact about the code: reference names."""
from __future__ import annotations

TMA_SKILL = "CuTe DSL kernel skill, 'Asynchrony tier 2: TMA + mbarriers (SM90+)'"
