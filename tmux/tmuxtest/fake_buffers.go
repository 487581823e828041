package tmuxtest

import "fmt"

// StageBuffer keeps text under name until PasteBuffer or DeleteBuffer.
func (f *Fake) StageBuffer(name, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.buffers == nil {
		f.buffers = map[string]string{}
	}
	f.buffers[name] = text
	return nil
}

// PasteBuffer pastes a staged buffer as Paste does, and deletes it.
func (f *Fake) PasteBuffer(paneID, name string, bracketed bool) error {
	f.mu.Lock()
	text, ok := f.buffers[name]
	delete(f.buffers, name)
	f.mu.Unlock()
	if !ok {
		return fmt.Errorf("no buffer %s", name)
	}
	return f.Paste(paneID, text, bracketed)
}

// HasBuffer reports whether name is staged and not pasted.
func (f *Fake) HasBuffer(name string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.buffers[name]
	return ok, nil
}

// DeleteBuffer drops a staged buffer.
func (f *Fake) DeleteBuffer(name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.buffers, name)
}
