"""Reading a scope and rendering its bulletins over the ports.

Both the bulletin service (on change) and the gateway (on demand, when a scope has none yet)
render bulletins; a service never imports another, so what they share lives here.
"""
