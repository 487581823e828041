package daemon

import (
	"net"
	"os"
)

// SamePeer reports whether the process at the other end of conn runs as this user: the
// Regent answers no one else.
func SamePeer(conn net.Conn) bool {
	uc, ok := conn.(*net.UnixConn)
	if !ok {
		return false
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return false
	}
	uid := -1
	_ = raw.Control(func(fd uintptr) { uid, err = peerUID(int(fd)) })
	return err == nil && uid == os.Getuid()
}
