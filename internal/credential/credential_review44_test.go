package credential

import (
	"strings"
	"testing"
)

// TestNoteCommandDrawn: a note's code showing a command whose word is a
// token drawn at random, after a one-letter option or none, crossed; a
// command's output, a hash and an id after a name that says one are
// what a note's code shows besides.
func TestNoteCommandDrawn(t *testing.T) {
	for _, note := range []string{
		"# Me\n\n```sh\n~/bin/notify -t azGDORePK8gMaC0QOYAMyEEuzJnyUi done\n```\n",
		"Run:\n\n```\nnotify -t azGDORePK8gMaC0QOYAMyEEuzJnyUi\n```\n",
		"Send it so:\n\n    pushover uQiRzpo4DXghDmr9QzzfQu27cmVRsG \"$MSG\"\n",
		"Run `ping-me Pac6iRol93JdHwcqjLgeTr0TmNKFthMDVl7p2nsH` at the end.\n",
		"Then <code>gotify push 'AVq3xR9pK2mLw7Zc'</code>.\n",
		"> ```bash\n> curl-notify -k uq7kx2m9pl0r4tnv8bz3j5w6y1hg0d\n> ```\n",
		"$ ./send.sh azGDORePK8gMaC0QOYAMyEEuzJnyUi\n",
	} {
		if !InDocument([]byte(note)) || !InLargeDocument([]byte(note)) {
			t.Errorf("InDocument or InLargeDocument(%q) = false, want true", note)
		}
	}
	for _, note := range []string{
		"```sh\ngit show --stat 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n```\n",
		"```sh\naws cognito-idp forgot-password --client-id 38fjsnc484p94kpqsnet7mpld0 --username jane\n```\n",
		"```sh\naws chime list-users --account-id a1b2c3d4-5678-90ab-cdef-11111EXAMPLE\n```\n",
		"::\n\n    {\n        \"ImageId\": \"a1b2c3d4-5678-90ab-cdef-11111EXAMPLE\"\n    }\n",
		"```\n-----BEGIN CERTIFICATE-----\nMIICiTCCAfICCQD6m7oRw0uXOjANBgkqhkiG9w0BAQUFADCBiDELMAkGA1UEBhMC\n```\n",
		"::\n\n    Received: from host by mail with esmtp\n        id 14lYR6-0008Iv-00\n",
		"```sh\naws emr modify-instance-fleet --cluster-id 'j-12ABCDEFGHI34JK' --instance-fleet InstanceFleetId='if-2ABC4DEFGHIJ4'\n```\n",
		"The word azGDORePK8gMaC0QOYAMyEEuzJnyUi is prose, no code.\n",
	} {
		if InDocument([]byte(note)) || InLargeDocument([]byte(note)) {
			t.Errorf("InDocument or InLargeDocument(%q) = true, want false", note)
		}
	}
}

// TestNoteCommandDrawnInLinearTime: each line is read once, whatever
// the note's lines.
func TestNoteCommandDrawnInLinearTime(t *testing.T) {
	// A line of spans is no longer than a note's line here: on one line
	// of 256 KiB, inlineCode's lists cost up to 70 times those of 32 KiB
	// in the thread's time, where a benchmark's wall time grows with the
	// line (13 to 32 MB/s).
	for _, unit := range []string{"    run -t Zx8kQ2mPp0wL7rT3vN5y\n", "`run x` `a b`\n", "```\n", "    x" + strings.Repeat("a", 100) + " Zx8kQ2mPp0wL7rT3", "    a " + strings.Repeat(" ", 64)} {
		judgedLinearly(t, "noteCommandDrawn", func(b []byte) { noteCommandDrawn(b) }, 32<<10, unit)
	}
}

// TestProseAssignment: a note's prose, outside its code, giving a
// literal to an environment variable named for a credential (a
// sentence's PGPASSWORD=… psql, a bare export line) crossed.
func TestProseAssignment(t *testing.T) {
	for _, note := range []string{
		"Connect with PGPASSWORD=Tr0ub4dor3x psql -h db to check.\n",
		"To reach staging run PGPASSWORD='Tr0ub4dor3x' psql -h staging.\n",
		"Set up:\nexport DB_PASSWORD=Tr0ub4dor3x\n",
		"- deploy with DEPLOY_TOKEN=Tr0ub4dor3x make deploy\n",
		"# export DB_PASSWORD=Tr0ub4dor3x\n",
		"PS> $env:DB_PASSWORD='Tr0ub4dor3x'\n",
	} {
		if !InDocument([]byte(note)) || !InLargeDocument([]byte(note)) {
			t.Errorf("InDocument or InLargeDocument(%q) = false, want true", note)
		}
	}
	for _, note := range []string{
		"Set PGPASSWORD=your-password before running psql.\n",
		"Set PGPASSWORD=your-password, or run PGPASSWORD=$PGPASS psql.\n",
		"Run PGPASSWORD=$PGPASS psql -h db.\n",
		"The option password=true turns the prompt on.\n",
		"Give API_TOKEN=<token> to the script.\n",
		"Use DB_PASSWORD=changeme locally only.\n",
	} {
		if InDocument([]byte(note)) || InLargeDocument([]byte(note)) {
			t.Errorf("InDocument or InLargeDocument(%q) = true, want false", note)
		}
	}
}

// TestProseAssignmentInLinearTime: each line is read once, whatever the
// note's lines.
func TestProseAssignmentInLinearTime(t *testing.T) {
	for _, unit := range []string{"A_TOKEN=x ", "PASS=Tr0ub4dor3x\n", "token =" + strings.Repeat("A", 100)} {
		judgedLinearly(t, "proseAssignment", func(b []byte) { proseAssignment(b) }, 32<<10, unit)
	}
}

// TestTableRowWithoutLeadingBar: a Markdown table's row written without
// its leading | (service | key, then ---|---) gave its token drawn at
// random as no table's cell, and crossed.
func TestTableRowWithoutLeadingBar(t *testing.T) {
	note := "service | key\n---|---\npushover | azGDORePK8gMaC0QOYAMyEEuzJnyUi\n"
	if !InDocument([]byte(note)) || !InLargeDocument([]byte(note)) {
		t.Errorf("InDocument or InLargeDocument(%q) = false, want true", note)
	}
	for _, note := range []string{
		"tag | commit\n:--|--:\nv1 | 4b825dc642cb6eb9a060e54bf8d69288fbee4904\n",
		"a | b\n\npushover | azGDORePK8gMaC0QOYAMyEEuzJnyUi/x\n",
		"no table here\nnotify | tee azGDORePK8gMaC0QOYAMyEEuzJnyUi.log\n",
	} {
		if InDocument([]byte(note)) || InLargeDocument([]byte(note)) {
			t.Errorf("InDocument or InLargeDocument(%q) = true, want false", note)
		}
	}
}
