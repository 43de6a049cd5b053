package credential

import "testing"

// TestMarkdownCodeAnyForm: Markdown's code as CommonMark places it, not
// only a fence of three at a line's start, is read for a literal given
// to a credential's name, in short prose and long: an indented block,
// a fence in a block quote, a fence indented by a tab, a fence of four
// around a ```bash one, a nested list's indented fence.
func TestMarkdownCodeAnyForm(t *testing.T) {
	for _, doc := range []string{
		"# Deploy\n\n    export DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\n    ./deploy.sh\n",
		"Deploy:\n\n\texport DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\n",
		"> Run:\n> ```bash\n> export DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\n> ```\n",
		"> > ~~~\n> > PGPASSWORD=Zq8xT3vN5yKp0w psql\n> > ~~~\n",
		"Deploy.\n\n\t```bash\n\texport DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\n\t```\n",
		"````markdown\n## Set-up\n```bash\nexport DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\n```\n````\n",
		"- Steps:\n    - Deploy:\n\n          ```sh\n          export DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\n          ```\n",
		"```bash\r\nexport DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\r\n```\r\n",
	} {
		if !InDocument([]byte(doc)) {
			t.Errorf("InDocument(%q) = false, want true", doc)
		}
		if !InLargeDocument(largeProse(doc)) {
			t.Errorf("InLargeDocument of a long text with %q = false, want true", doc)
		}
	}
	for _, doc := range []string{
		"# Deploy\n\n    export DEPLOY_PASSWORD=\"$(pass show deploy)\"\n    ./deploy.sh\n",
		"- Auth:\n    - token: see the vault\n    - password: your-password\n",
		"    ```\n    the token is in ~/.netrc\n    ```\n",
		"````\n```\n````\nexport DEPLOY_PASSWORD is set by CI: Zq8x is its prefix\n",
		"Use `DEPLOY_PASSWORD=$DEPLOY_PASSWORD ./deploy.sh`.\n",
	} {
		if InDocument([]byte(doc)) {
			t.Errorf("InDocument(%q) = true, want false", doc)
		}
		if InLargeDocument(largeProse(doc)) {
			t.Errorf("InLargeDocument of a long text with %q = true, want false", doc)
		}
	}
}

// TestInlineCodeAsCommonMark: an inline span opened by a run of
// backquotes is closed by the next run of as many (two around
// PGPASSWORD=… psql, split at each backquote, read as prose and crossed), and an
// HTML <code> element is code too, in short prose and long; a lone
// backquote and a span of a placeholder are not.
func TestInlineCodeAsCommonMark(t *testing.T) {
	for _, doc := range []string{
		"Run ``PGPASSWORD=Tr0ub4dor3x psql -h db app`` once.",
		"Use `a` and ``PGPASSWORD=Tr0ub4dor3x psql``.",
		"The admin's ```MYSQL_PWD=Tr0ub4dor3x mysqldump``` backup.",
		"Run <code>PGPASSWORD=Tr0ub4dor3x psql</code> once.",
		"Run <CODE>export DEPLOY_TOKEN=Tr0ub4dor3xQ8z</CODE> once.",
	} {
		if !InDocument([]byte(doc)) {
			t.Errorf("InDocument(%q) = false, want true", doc)
		}
		if !InLargeDocument(largeProse(doc)) {
			t.Errorf("InLargeDocument of a long text with %q = false, want true", doc)
		}
	}
	for _, doc := range []string{
		"Run ``PGPASSWORD=$PGPASSWORD psql`` once.",
		"The `` ` `` mark, then `PGPASSWORD` comes from ``pass show db``.",
		"Run <code>PGPASSWORD=your-password psql</code>.",
	} {
		if InDocument([]byte(doc)) {
			t.Errorf("InDocument(%q) = true, want false", doc)
		}
		if InLargeDocument(largeProse(doc)) {
			t.Errorf("InLargeDocument of a long text with %q = true, want false", doc)
		}
	}
}

// TestRestructuredTextLiteralBlock: reStructuredText's literal block,
// the lines indented further than one that ends in :: or a code
// directive (.rst is read as prose; its two or three spaces are less
// than Markdown's four), is read as code, short and long; the prose
// after it is not.
func TestRestructuredTextLiteralBlock(t *testing.T) {
	for _, doc := range []string{
		"Deploy::\n\n  export DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\n  ./deploy.sh\n\nDone.\n",
		".. code-block:: bash\n\n   export DEPLOY_PASSWORD=Zq8xT3vN5yKp0w\n",
		"- Steps:\n\n  .. code:: sh\n\n     PGPASSWORD=Zq8xT3vN5yKp0w psql -h db app\n",
	} {
		if !InDocument([]byte(doc)) {
			t.Errorf("InDocument(%q) = false, want true", doc)
		}
		if !InLargeDocument(largeProse(doc)) {
			t.Errorf("InLargeDocument of a long text with %q = false, want true", doc)
		}
	}
	for _, doc := range []string{
		"Deploy::\n\n  export DEPLOY_PASSWORD=\"$(pass show deploy)\"\n",
		"Deploy::\n\n  ./deploy.sh\n\n- token: see the vault\n",
	} {
		if InDocument([]byte(doc)) {
			t.Errorf("InDocument(%q) = true, want false", doc)
		}
		if InLargeDocument(largeProse(doc)) {
			t.Errorf("InLargeDocument of a long text with %q = true, want false", doc)
		}
	}
}
