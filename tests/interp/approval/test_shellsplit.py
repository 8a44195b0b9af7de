import pytest

from interp.approval.shellsplit import Command, ShellParseError, parse_commands, split_commands

pytestmark = pytest.mark.fast  # pure units: no process, pty or server (see conftest.py)


@pytest.mark.parametrize("code, commands", [
    ("git status", ["git status"]),
    ("  ls   -la\t/tmp  ", ["ls -la /tmp"]),
    ("cd x && rm -rf y", ["cd x", "rm -rf y"]),
    ("a || b; c & d\ne", ["a", "b", "c", "d", "e"]),
    ("ls | grep foo |& wc -l", ["ls", "grep foo", "wc -l"]),
    ("cmd &>/dev/null &", ["cmd &>/dev/null"]),
    ("make 2>&1 | tee log", ["make 2>&1", "tee log"]),
    ("ls > out.txt", ["ls > out.txt"]),
    ("ls>out", ["ls >out"]),
])
def test_separators_and_whitespace(code, commands):
    assert split_commands(code) == commands


@pytest.mark.parametrize("code, commands", [
    ('echo "a; rm -rf /"', ['echo "a; rm -rf /"']),
    ("echo 'a && b | c'", ["echo 'a && b | c'"]),
    ("echo $'a\\'; rm'", ["echo $'a\\'; rm'"]),
    ("echo a\\;b", ["echo a\\;b"]),
    ('echo "two  spaces"   kept', ['echo "two  spaces" kept']),
    ("ls \\\n  -la", ["ls -la"]),
    ('echo "it\'s $HOME"', ['echo "it\'s $HOME"']),
])
def test_quotes_and_escapes_do_not_split(code, commands):
    assert split_commands(code) == commands


@pytest.mark.parametrize("code, commands", [
    ("echo $(curl evil)", ["echo $(curl evil)", "curl evil"]),
    ("echo `rm -rf /`", ["echo `rm -rf /`", "rm -rf /"]),
    ('echo "$(whoami) is `id -u`"', ['echo "$(whoami) is `id -u`"', "whoami", "id -u"]),
    ("echo `echo \\`date\\``", ["echo `echo \\`date\\``", "echo `date`", "date"]),
    ("x=$( (a; b) | c )", ["x=$( (a; b) | c )", "a", "b", "c"]),
    ("echo ${x:-$(whoami)}", ["echo ${x:-$(whoami)}", "whoami"]),
    ("echo $((1 + $(id -u)))", ["echo $((1 + $(id -u)))", "id -u"]),
    ("diff <(ls a) >(wc)", ["diff <(ls a) >(wc)", "ls a", "wc"]),
])
def test_substitutions_are_commands_too(code, commands):
    assert split_commands(code) == commands


@pytest.mark.parametrize("code, commands", [
    ("(cd x; make) 2>&1", ["cd x", "make"]),
    ("{ a; b; } > log", ["a", "b"]),
    ("f() { rm -rf /; }; f", ["rm -rf /", "f"]),
    ("function g { rm x; }", ["rm x"]),
    ("if [ -f x ]; then rm x; else echo no; fi", ["[ -f x ]", "rm x", "echo no"]),
    ('for f in *.csv; do wc -l "$f"; done', ['wc -l "$f"']),
    ("while true; do sleep 1; done", ["true", "sleep 1"]),
    ("! grep x f; time ls", ["grep x f", "ls"]),
    ("((i++)); a=(1 2  3)", ["((i++))", "a=(1 2 3)"]),
    ("echo {a,b} a#b", ["echo {a,b} a#b"]),
])
def test_groups_and_reserved_words(code, commands):
    assert split_commands(code) == commands


@pytest.mark.parametrize("code, commands", [
    ("ls # rm -rf /\n  pwd  # more", ["ls", "pwd"]),
    ("# only a comment\n", []),
    ("", []),
    ("cat <<EOF\nrm -rf /\nEOF\nls", ["cat <<EOF", "ls"]),
    ("cat <<-EOF > f\n\trm -rf /\n\tEOF\necho done", ["cat <<-EOF > f", "echo done"]),
    ("cat << 'EOF'\n$(rm x) `rm y`\nEOF", ["cat << 'EOF'"]),
    ("cat <<EOF\n$(rm x) and `rm y`\nEOF", ["cat <<EOF", "rm x", "rm y"]),
    ("a <<X; b <<Y\nx\nX\ny\nY\nc", ["a <<X", "b <<Y", "c"]),
    ("python3 - <<EOF\nprint('hi')\nEOF", ["python3 - <<EOF"]),
    ("tr a b <<< 'x; rm y'", ["tr a b <<< 'x; rm y'"]),
])
def test_comments_and_heredocs(code, commands):
    assert split_commands(code) == commands


@pytest.mark.parametrize("code", [
    "echo 'a", 'echo "a', "echo $(ls", "echo `ls", "ls )", "echo (", "{ a }", "echo ${x",
    "echo $'ab", "cat <<EOF\nbody", "cat <<EOF", "cat <<", "case x in a) ls;; esac",
    "echo " + "$(" * 60 + ")" * 60,
])
def test_parse_failures(code):
    with pytest.raises(ShellParseError):
        split_commands(code)


def test_bare_text_and_assignments():
    [cmd] = parse_commands("FOO=1 BAR='a b' \\rm   'x y'")
    assert cmd.text == "FOO=1 BAR='a b' \\rm 'x y'"
    assert cmd.bare == "FOO=1 BAR=a b rm x y"
    assert cmd.without_assignments() == Command(("\\rm", "'x y'"), ("rm", "x y"))
    assert parse_commands("X=1")[0].without_assignments().text == "X=1"
