"""The registry's routes: jurisdictions, FSEs, permits, devices, haulers, sites, imports."""
