"""What each city knows: jurisdictions, FSEs, permits, devices, haulers, sites, imports."""
