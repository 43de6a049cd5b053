package credential

import (
	"bytes"
	"strings"
)

// noteCommandDrawn says a note's code (a block as markdownCode places
// one, an inline span) shows a command with a token drawn at random as
// one of its words (codeCommandDrawn): CLAUDE.md's ```sh block of
// ~/bin/notify -t …, a skill's indented pushover … and its `ping-me …`
// crossed, no name there saying a secret. Of this machine's 13,738 .md,
// .txt and .rst files none more is left out for it, where judging every
// word of a note's code as a command's left out 588, nearly all a
// command's output of ids. Read a line at a time, each byte a bounded
// number of times.
func noteCommandDrawn(data []byte) bool {
	var md markdownCode
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		text, kind := md.read(line)
		switch kind {
		case codeLine:
			if codeCommandDrawn(text) {
				return true
			}
		case proseLine:
			if bytes.IndexByte(text, '`') < 0 && bytes.IndexByte(text, '<') < 0 {
				continue
			}
			for _, span := range inlineCode(text) {
				if codeCommandDrawn(span) {
					return true
				}
			}
		}
	}
	return false
}

// codeCommandDrawn says a line of a note's code is a command (its first
// word a program's name: a path or a name, more after it) one of whose
// later words, a word of its own, is a token drawn at random
// (drawnAtRandom), as commandWordDrawn reads a hook's. What is known
// harmless there is what a note's code shows besides: a command's output
// (JSON's "id": "…", a certificate's lines: no program's name first), a
// commit's, a hash's or a key's hex (hexName), and a word after an
// option or a name that says an identifier (--client-id …, id …: the
// AWS CLI's examples give every resource's id so).
func codeCommandDrawn(line []byte) bool {
	line = bytes.TrimLeft(line, " \t")
	program := 0
	for program < len(line) && programByte(line[program]) {
		program++
	}
	if program == 0 || !programStart(line[0]) || program == len(line) || line[program] != ' ' && line[program] != '\t' {
		return false
	}
	return anyDrawnWord(line, func(start, end int) bool {
		return start > program && strings.IndexByte(" \t\"';(`", line[start-1]) >= 0 && wordEnds(line, end) &&
			!hexName(line[start:end]) && !namesIdentifier(nameBefore(line, start))
	})
}

// programStart says c may begin a program's name or path.
func programStart(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '~' || c == '.' || c == '/' || c == '_'
}

// programByte says c may stand in a program's name or path.
func programByte(c byte) bool {
	return isTokenByte(c) || c == '.' || c == '/' || c == '~' || c == '+'
}

// nameBefore is the word a command's word at start follows, an option
// without its dashes or an assignment's name (Name=…), in lower case.
// It reads back over one quote, the spaces or the = and one word.
func nameBefore(data []byte, start int) string {
	q := start
	if q > 0 && (data[q-1] == '"' || data[q-1] == '\'') {
		q--
	}
	if q > 0 && data[q-1] == '=' {
		q--
	} else {
		for q > 0 && (data[q-1] == ' ' || data[q-1] == '\t') {
			q--
		}
	}
	from := q
	for from > 0 && isTokenByte(data[from-1]) {
		from--
	}
	return strings.ToLower(strings.TrimLeft(string(data[from:q]), "-"))
}

// proseAssignment says a note's prose, outside its code, gives a
// literal to an environment variable named for a credential
// (shellAssignment: a sentence's PGPASSWORD=… psql, a line's bare export
// DB_PASSWORD=…, a list item's DEPLOY_TOKEN=… make deploy), the name in
// capitals as a variable's is (prose's password=… in a sentence is
// words) and the literal not reading as a placeholder's (unplaceholder).
// An expression runs only on a line with an = and a credential's word.
func proseAssignment(data []byte) bool {
	var md markdownCode
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		text, kind := md.read(line)
		if kind != proseLine || bytes.IndexByte(text, '=') < 0 || !holdsAny(lowerASCII(text), assignedHints) {
			continue
		}
		for _, m := range shellAssignment().FindAllSubmatchIndex(text, -1) {
			// A sentence's comma or stop is no part of the value.
			if variableName(text[:m[2]]) && unplaceholder(bytes.TrimRight(text[m[2]:m[3]], ",.:!?")) {
				return true
			}
		}
	}
	return false
}

// variableName says the text before an assigned value ends in an
// environment variable's name, in capitals, and its =.
func variableName(before []byte) bool {
	before = bytes.TrimRight(before, "\"'")
	if !bytes.HasSuffix(before, []byte("=")) {
		return false
	}
	before = bytes.TrimRight(before[:len(before)-1], "\"'")
	from := len(before)
	for from > 0 && isWordByte(before[from-1]) {
		from--
	}
	name := before[from:]
	return len(name) >= 2 && bytes.ContainsAny(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") && !bytes.ContainsAny(name, "abcdefghijklmnopqrstuvwxyz")
}
