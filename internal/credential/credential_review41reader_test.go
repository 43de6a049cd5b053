package credential

import (
	"strings"
	"testing"
)

// TestTokenBeforeComment: a token drawn at random under a name that says
// nothing is found whatever ends its line after it: a comment (a
// script's, YAML's, an INI file's), spaces, or a shell's ; before the
// next command; an identifier's value with a comment after it is not,
// nor a value that goes on with words.
func TestTokenBeforeComment(t *testing.T) {
	var filler strings.Builder
	for filler.Len() <= 16<<10 {
		filler.WriteString("- site: www.example.com\n  region: eu-west-1\n")
	}
	for _, text := range []string{
		"owm: 3f2a9c1b7e4d5a6f8b0c2d4e6f8a1b3c   # openweathermap\n",
		"alphavantage=Q7XK2M9PLR4TNV8B \n",
		"alphavantage=Q7XK2M9PLR4TNV8B\t; quotes\n",
		"netlify: DcmJKWAjvBiKPfGwjJbYUpTXggfLE4RnS15YaRqb // the deploy's\n",
		"cloudflare: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1 ",
	} {
		if !InSettings([]byte(text)) {
			t.Errorf("InSettings(%q) = false, want true", text)
		}
		if large := filler.String() + text; !InLargeSettings([]byte(large)) {
			t.Errorf("InLargeSettings(%d bytes ending %q) = false, want true", len(large), text)
		}
	}
	for _, script := range []string{
		"#!/bin/sh\nCF_GLOBAL=1e4bd0d7a3c9f26b58e7a1c4d93f0b6e2a8c5d7  # the global key\ncurl -H \"X-Auth-Key: $CF_GLOBAL\" …\n",
		"#!/bin/sh\nAPP=Pac6iRol93JdHwcqjLgeTr0TmNKFthMDVl7p2nsH; curl -d \"app=$APP\" …\n",
	} {
		if !InScript([]byte(script)) {
			t.Errorf("InScript(%q) = false, want true", script)
		}
	}
	if text := "- Cloudflare: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1  \n"; !InDocument([]byte(text)) || !InLargeDocument([]byte(text)) {
		t.Errorf("InDocument or InLargeDocument(%q) = false, want true", text)
	}
	for _, text := range []string{
		"EMPTY_TREE=4b825dc642cb6eb9a060e54bf8d69288fbee4904 # git's empty tree\n",
		"commit: 8f14e45fceea167a5a36dedd4bea2543aa1b2c3d  # the release\n",
		"fixed: 8f14e45fceea167a5a36dedd4bea2543aa1b2c3d and more\n",
	} {
		if InSettings([]byte(text)) || InScript([]byte(text)) {
			t.Errorf("InSettings or InScript(%q) = true, want false", text)
		}
	}
}

// TestTokenGivenInCommand: a token drawn at random given to a name that
// says nothing in a command's word (an assignment before the program's
// name, a form's field, an option's value) is found in a command, in a
// script and in a note's code; an identifier's, a URL query's (judged by InURLQuery) and
// one glued to a word before it are not this judge's.
func TestTokenGivenInCommand(t *testing.T) {
	for _, command := range []string{
		"PUSHOVER_APP=azgdhr9x2kq7mvp3lw8ncf5tby1ejs ~/bin/notify done",
		"curl -s -d app=Pac6iRol93JdHwcqjLgeTr0TmNKFthMDVl7p2nsH -d message=waiting https://notify.example.com/send",
		"notify --app=Pac6iRol93JdHwcqjLgeTr0TmNKFthMDVl7p2nsH done",
		"cd ~/site && CF=1e4bd0d7a3c9f26b58e7a1c4d93f0b6e2a8c5d7 ./purge.sh",
		`sh -c "CF=1e4bd0d7a3c9f26b58e7a1c4d93f0b6e2a8c5d7 ./purge.sh"`,
	} {
		if !InCommand([]byte(command)) {
			t.Errorf("InCommand(%q) = false, want true", command)
		}
		if script := "#!/bin/sh\n" + command + "\n"; !InScript([]byte(script)) {
			t.Errorf("InScript(%q) = false, want true", script)
		}
	}
	for _, text := range []string{
		"# Notes\n\nRun:\n\n```sh\nPUSHOVER_APP=azgdhr9x2kq7mvp3lw8ncf5tby1ejs ~/bin/notify done\n```\n",
		"# Notes\n\nRun `PUSHOVER_APP=azgdhr9x2kq7mvp3lw8ncf5tby1ejs ~/bin/notify done` to be told.\n",
	} {
		if !InDocument([]byte(text)) || !InLargeDocument([]byte(text)) {
			t.Errorf("InDocument or InLargeDocument(%q) = false, want true", text)
		}
	}
	for _, command := range []string{
		"EMPTY_TREE=4b825dc642cb6eb9a060e54bf8d69288fbee4904 echo done",
		"GIT_COMMIT=8f14e45fceea167a5a36dedd4bea2543aa1b2c3d make release",
		"open 'https://drive.google.com/file/d/1LEz/view?usp=sharing&resourcekey=0-LtPTzR1woh-rxGtfPzjjfg'",
		"cat ./out/x=1e4bd0d7a3c9f26b58e7a1c4d93f0b6e2a8c5d7",
	} {
		if randomWord([]byte(command)) {
			t.Errorf("randomWord(%q) = true, want false", command)
		}
	}
}
