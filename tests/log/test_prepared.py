"""pbem.log.prepared: statements of the hot paths prepared once per connection under names of our own."""

from __future__ import annotations

from pbem.log import prepared


def test_placeholders_are_numbered_in_order_and_a_doubled_percent_is_a_literal_one():
    text, _name = prepared.numbered("SELECT %s, %s WHERE name LIKE 'a%%' AND id = %s")
    assert text == b"SELECT $1, $2 WHERE name LIKE 'a%' AND id = $3"


def test_a_name_comes_from_the_text_and_two_texts_never_share_one():
    first, second = prepared.numbered("SELECT %s"), prepared.numbered("SELECT %s + 1")
    assert first[1] != second[1]
    assert prepared.numbered("SELECT %s") == first
    assert first[1].startswith(b"pbem_") and prepared.numbered("SELECT %s", "pbem_rows_")[1].startswith(b"pbem_rows_")
