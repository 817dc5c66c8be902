"""Serving the app to the public: a hardened Voila (``python -m explorer.hosting``).

This layer sits beside :mod:`explorer.app` and imports nothing else of the
package: it knows Voila, jupyter_server and tornado, not the cost model.
"""
