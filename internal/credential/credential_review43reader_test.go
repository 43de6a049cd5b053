package credential

import "testing"

// TestPromptLineAndListFence: a command after the prompt a shell shows
// (bash's user@host:path$ and [user@host dir]$, root's #, zsh's %, each
// after a virtualenv's (name) too) and a fence that opens a list's item
// are code, judged as a fenced block is, short or long; prose that only
// looks like them is not.
func TestPromptLineAndListFence(t *testing.T) {
	for _, doc := range []string{
		"Deploy:\n\nalice@staging:~$ export DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\n",
		"Deploy:\n\nroot@staging:/srv# export DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\n",
		"Deploy:\n\n[alice@staging app]$ export DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\n",
		"Deploy:\n\n% export DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\n",
		"Deploy:\n\n(venv) $ PGPASSWORD=Zq8xT3vN5yKp0w pg_dump app\n",
		"Deploy:\n\n(.venv) alice@box:~/app$ PGPASSWORD=Zq8xT3vN5yKp0w pg_dump app\n",
		"> alice@staging:~$ export DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\n",
		"Steps:\n\n- ```sh\n  export DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\n  ```\n",
		"Steps:\n\n1. ~~~\n   export DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\n   ~~~\n",
		"Steps:\n\n* $ export DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\n",
	} {
		if !InDocument([]byte(doc)) {
			t.Errorf("InDocument(%q) = false, want true", doc)
		}
		if !InLargeDocument(largeProse(doc)) {
			t.Errorf("InLargeDocument of a long text with %q = false, want true", doc)
		}
	}
	for _, doc := range []string{
		"alice@staging:~$ export DEPLOY_PASSWORD=\"$(pass show deploy)\"\n",
		"alice@example.com wrote: the password is in the vault.\n",
		"% of the builds fail; the password is in the vault.\n",
		"(see above) $ signs mark the prompt; the token is in the vault.\n",
		"- ```sh``` is the fence; the password is in the vault.\n",
		"10. The password is in the vault.\n",
	} {
		if InDocument([]byte(doc)) {
			t.Errorf("InDocument(%q) = true, want false", doc)
		}
		if InLargeDocument(largeProse(doc)) {
			t.Errorf("InLargeDocument of a long text with %q = true, want false", doc)
		}
	}
}
