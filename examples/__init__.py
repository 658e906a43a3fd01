"""Small, tested examples of extending planloop; the README shows them verbatim."""
