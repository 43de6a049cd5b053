package credential

import "bytes"

// cookieJar says text holds a cookie as a Netscape cookie file keeps
// it (curl's -c, yt-dlp's and gallery-dl's --cookies, a browser
// extension's export): a line of seven fields parted by tabs, the
// domain (#HttpOnly_ before it, for such a cookie), TRUE or FALSE, the
// path, TRUE or FALSE, the expiry's number, the name and a value. A
// session's cookie is its login: a skill's cookies.txt, which a
// YouTube transcript's yt-dlp reads, crossed.
func cookieJar(text []byte) bool {
	if bytes.Count(text, []byte("\t")) < 6 {
		return false
	}
	for line := range bytes.SplitSeq(text, []byte("\n")) {
		// Eight parts at most: a line of more fields is none, and a line
		// of 16 MiB of tabs split whole was a slice of 384 MiB.
		f := bytes.SplitN(bytes.TrimRight(line, "\r"), []byte("\t"), 8)
		if len(f) != 7 || len(f[6]) == 0 || len(f[0]) == 0 {
			continue
		}
		if flag(f[1]) && flag(f[3]) && len(f[4]) > 0 && len(bytes.Trim(f[4], "0123456789")) == 0 {
			return true
		}
	}
	return false
}

// flag says b is a Netscape cookie file's TRUE or FALSE.
func flag(b []byte) bool { return string(b) == "TRUE" || string(b) == "FALSE" }
