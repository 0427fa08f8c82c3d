/// Probe: a stall watchdog and startup-phase timer for services.
