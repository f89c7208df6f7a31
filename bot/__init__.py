"""The imperative shell: the referee desk (use cases), the scheduler, the ports and the platform adapters."""
