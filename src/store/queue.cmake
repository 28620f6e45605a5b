# Bounded on-disk queue and the remote-write forwarder that drains it.
