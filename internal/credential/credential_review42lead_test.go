package credential

import "testing"

// TestPreBlockAndPromptLine: an HTML <pre> block and a shell prompt's
// line are a note's code, as a fenced block is, in short prose and
// long; one whose password comes from a variable or reads as a
// placeholder is not taken to hold one.
func TestPreBlockAndPromptLine(t *testing.T) {
	for _, doc := range []string{
		"Deploy:\n\n<pre>\nexport DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\n./deploy.sh\n</pre>\n",
		"<PRE class=\"sh\">PGPASSWORD=Zq8xT3vN5yKp0w psql -h db app</PRE>\n",
		"> <pre>\n> export DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\n> </pre>\n",
		"Deploy to staging:\n\n$ export DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\n$ ./deploy.sh\n",
		"Back up:\n  $ PGPASSWORD=Zq8xT3vN5yKp0w pg_dump app > app.sql\n",
	} {
		if !InDocument([]byte(doc)) {
			t.Errorf("InDocument(%q) = false, want true", doc)
		}
		if !InLargeDocument(largeProse(doc)) {
			t.Errorf("InLargeDocument of a long text with %q = false, want true", doc)
		}
	}
	for _, doc := range []string{
		"<pre>\nexport DEPLOY_PASSWORD=\"$(pass show deploy)\"\n</pre>\n",
		"$ export DEPLOY_PASSWORD=your-password\n",
		"<pre>\n$ ./deploy.sh\n</pre>\nThe token is in the vault.\n",
		"It costs $ 5 a month; the password is in the vault.\n",
	} {
		if InDocument([]byte(doc)) {
			t.Errorf("InDocument(%q) = true, want false", doc)
		}
		if InLargeDocument(largeProse(doc)) {
			t.Errorf("InLargeDocument of a long text with %q = true, want false", doc)
		}
	}
}
