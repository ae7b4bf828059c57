"""The protocol: carrying a decision out against a distributed API exactly once. Submitting an
attempt (submission), following it (waiting), stopping it (stopping), adopting a job started outside
the stack (adoption), and the slots that bound the calls that wait (blocking). It talks to Vertex
only through the client."""
