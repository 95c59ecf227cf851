"""The runner's stop signals (SIGTERM at a job's time limit, SIGINT) put off while a process starts."""
import contextlib
import os
import signal

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


@contextlib.contextmanager
def stop_signals_held():
    """A SIGTERM or SIGINT that arrives inside the block takes effect as it ends, through the handler it
    would have met: a process started inside the block has its handle before the runner's stop is
    raised, so that the stop can end that process too. The signals are recorded rather than blocked: a
    blocked signal stays blocked in the processes started meanwhile, which then would not stop."""
    arrived = []
    handlers = {s: signal.signal(s, lambda signum, frame: arrived.append((signum, frame))) for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for s, handler in handlers.items():
            signal.signal(s, handler)
        if arrived:
            signum, frame = arrived[0]
            handler = handlers[signum]
            if callable(handler):
                handler(signum, frame)
            elif handler == signal.SIG_DFL:
                os.kill(os.getpid(), signum)
