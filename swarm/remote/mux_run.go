package remote

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
)

// runMux runs line on the host through the master connection, without an ssh process. An
// error wrapping errNoMuxSession means the command did not run and the ssh client can run it
// instead; anything else is how the command ended, read as ssh's would be.
func (c *Conn) runMux(ctx context.Context, line string, s Streams) (int, error) {
	filter := NewStderrFilter(s.Stderr)
	files, err := newSessionFiles(s, filter)
	if err != nil {
		return 0, fmt.Errorf("%w: %w", errNoMuxSession, err)
	}
	mux, err := dialMaster(ctx, c.control, c.ConnectTimeout)
	if err != nil {
		files.abandon()
		return 0, err
	}
	// An end of ctx closes the socket: the master then ends the session's channel, as it
	// does when an ssh client is killed.
	stop := context.AfterFunc(ctx, mux.close)
	defer stop()
	err = mux.openSession(line, os.Environ(), files.give)
	files.handedOver()
	if err != nil {
		mux.close()
		files.abandon()
		return 0, err
	}
	files.start()
	code, exited, spoke := mux.wait()
	files.finish(ctx.Err() != nil || spoke != nil)
	filter.Close()
	said := filter.Said()
	if spoke != nil {
		said += "\nthe master connection sent " + spoke.Error()
	}
	if !exited {
		code = 255
	}
	return c.ended(ctx, code, said)
}

// sessionFiles are the files a session is handed for Streams, and the copying that joins the
// ones that are not files to pipes. A stream that is a file is handed over as it is.
type sessionFiles struct {
	give [3]*os.File
	// ours are the files of give opened here: closed once the master has its copies, so
	// that the pipes end when the session does.
	ours []*os.File
	// stdin is the writing end of the pipe handed as standard input: fed from source, or
	// held open while the command runs when there is no source.
	stdin  *os.File
	source io.Reader
	// outputs are the reading ends of the pipes handed as standard output and error, each
	// copied to its writer.
	outputs []output
	copies  sync.WaitGroup
}

type output struct {
	from *os.File
	to   io.Writer
}

func newSessionFiles(s Streams, stderr io.Writer) (*sessionFiles, error) {
	f := &sessionFiles{}
	var err error
	if f.give[0], err = f.input(s.Stdin); err == nil {
		if f.give[1], err = f.output(s.Stdout); err == nil {
			f.give[2], err = f.output(stderr)
		}
	}
	if err != nil {
		f.handedOver()
		f.abandon()
		return nil, fmt.Errorf("cannot make the session's pipes: %w", err)
	}
	return f, nil
}

// input is what the session reads: in itself when it is a file, else a pipe.
func (f *sessionFiles) input(in io.Reader) (*os.File, error) {
	if file, ok := in.(*os.File); ok && file != nil {
		return file, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	f.ours = append(f.ours, r)
	f.stdin, f.source = w, in
	return r, nil
}

// output is where the session writes: out itself when it is a file, the null device when
// there is none, else a pipe.
func (f *sessionFiles) output(out io.Writer) (*os.File, error) {
	if file, ok := out.(*os.File); ok && file != nil {
		return file, nil
	}
	if out == nil {
		null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err == nil {
			f.ours = append(f.ours, null)
		}
		return null, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	f.ours = append(f.ours, w)
	f.outputs = append(f.outputs, output{from: r, to: out})
	return w, nil
}

// handedOver closes our copies of what the master now holds.
func (f *sessionFiles) handedOver() {
	for _, file := range f.ours {
		_ = file.Close()
	}
	f.ours = nil
}

// abandon closes the pipes of a session that never opened: nothing was read from the
// streams, so the ssh client can have them whole.
func (f *sessionFiles) abandon() {
	if f.stdin != nil {
		_ = f.stdin.Close()
	}
	for _, o := range f.outputs {
		_ = o.from.Close()
	}
}

// start copies the streams that are not files, once the session is open.
func (f *sessionFiles) start() {
	for _, o := range f.outputs {
		f.copies.Add(1)
		go func() {
			defer f.copies.Done()
			_, _ = io.Copy(o.to, o.from)
			_ = o.from.Close()
		}()
	}
	if f.stdin != nil && f.source != nil {
		f.copies.Add(1)
		go func() {
			defer f.copies.Done()
			_, _ = io.Copy(f.stdin, f.source)
			_ = f.stdin.Close()
		}()
	}
}

// finish waits for the copies once the session has ended: its output is all in the pipes,
// what is left of its input is no longer wanted. An interrupted session's output is cut
// short instead of waited for.
func (f *sessionFiles) finish(interrupted bool) {
	if f.stdin != nil {
		_ = f.stdin.Close()
	}
	if interrupted {
		for _, o := range f.outputs {
			_ = o.from.Close()
		}
	}
	f.copies.Wait()
}
