"""Application logic that is no single service's own and holds no backend code.

It works over the ports only (adapters are passed in by the composition roots), so two
services can share it without one importing the other: bulletin rendering orchestration
(`bulletins/`) and the LLM spend bound (`spend_guard.py`).
"""
