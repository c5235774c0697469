"""`kb misroute`, `kb misroutes` and `kb abstentions`."""
