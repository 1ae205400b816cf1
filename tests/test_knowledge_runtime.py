"""The hand-kept knowledge table's torch facts, run on torch: what an entry claims holds."""

import pytest

from flake8_tensorcopy.knowledge import HAND_TABLE

torch = pytest.importorskip("torch")


def _distribution_entries(role: str):
    return [entry for entry in HAND_TABLE if entry.role == role]


@pytest.mark.parametrize("entry", _distribution_entries("reparameterized") + _distribution_entries("draw"),
                         ids=lambda entry: entry.name)
def test_what_a_distribution_computes_requires_grad_only_where_the_table_says(entry):
    mu = torch.zeros(3, requires_grad=True)
    point = torch.full((3,), 0.25)
    for dist in (torch.distributions.Normal(mu, 1.0), torch.distributions.Categorical(logits=mu)):
        if not hasattr(dist, entry.name) or (entry.name == "icdf" and type(dist).__name__ == "Categorical"):
            continue
        member = getattr(dist, entry.name)
        if entry.where == "method":
            argument = point if type(dist).__name__ == "Normal" else torch.tensor(1)
            try:
                member = member() if entry.name in ("rsample", "sample") else member(argument)
            except NotImplementedError:  # Categorical has no rsample or cdf
                continue
        assert member.requires_grad is (entry.role == "reparameterized"), (type(dist).__name__, entry.name)
    assert not torch.distributions.Normal(torch.zeros(3), 1.0).rsample().requires_grad  # parameters without grad
