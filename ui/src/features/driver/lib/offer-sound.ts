// A short two-tone chime for a new offer, made with Web Audio so no sound
// file is needed. Browsers allow it after the driver's first click (going online).
let context: AudioContext | null = null;

export function playOfferSound() {
  try {
    const AudioContextClass = window.AudioContext ?? (window as unknown as { webkitAudioContext?: typeof AudioContext }).webkitAudioContext;
    if (!AudioContextClass) return;
    context ??= new AudioContextClass();
    const now = context.currentTime;
    for (const [offset, frequency] of [[0, 880], [0.18, 1320]] as const) {
      const oscillator = context.createOscillator();
      const gain = context.createGain();
      oscillator.type = 'sine';
      oscillator.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, now + offset);
      gain.gain.exponentialRampToValueAtTime(0.25, now + offset + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + offset + 0.16);
      oscillator.connect(gain).connect(context.destination);
      oscillator.start(now + offset);
      oscillator.stop(now + offset + 0.2);
    }
  } catch {
    // No sound is better than a broken console.
  }
}

/** Lets the chime play later: browsers start audio only after a user gesture. */
export function unlockOfferSound() {
  try {
    const AudioContextClass = window.AudioContext;
    if (!AudioContextClass) return;
    context ??= new AudioContextClass();
    void context.resume();
  } catch {
    // ignore
  }
}
