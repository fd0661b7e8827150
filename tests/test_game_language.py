"""The reader's language reaches a game through games.i18n (issue 33)."""

import threading

from games import i18n


def test_english_is_the_default_language():
    assert i18n.current() == "en"


def test_a_regional_code_means_its_language_and_an_unknown_one_the_default():
    assert i18n.supported("de-AT") == "de"
    assert i18n.supported("FR") == "fr"
    assert i18n.supported("fr_CA") == "fr"
    assert i18n.supported("xx") == "en"
    assert i18n.supported(None) == "en"


def test_using_sets_the_language_inside_the_block_only():
    with i18n.using("de") as language:
        assert language == "de" and i18n.current() == "de"
        with i18n.using("fr"):
            assert i18n.current() == "fr"
        assert i18n.current() == "de"
    assert i18n.current() == "en"


def test_another_thread_keeps_its_own_language():
    seen = []
    with i18n.using("de"):
        thread = threading.Thread(target=lambda: seen.append(i18n.current()))
        thread.start()
        thread.join()
    assert seen == ["en"]
