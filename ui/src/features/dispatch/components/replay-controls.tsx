import PauseIcon from '@mui/icons-material/Pause';
import PlayArrowIcon from '@mui/icons-material/PlayArrow';
import { Alert, Box, CircularProgress, IconButton, Slider, Stack, ToggleButton, ToggleButtonGroup, Typography } from '@mui/material';
import dayjs from 'dayjs';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ServerErrorAlert } from '@/components/ui/server-error-alert';
import { durationText } from '@/lib/durations';
import { useReplayTracking } from '../api/dispatch';
import { advance, REPLAY_SPEEDS, replayPoints, replayPosition, stageTimes, type ReplaySpeed } from '../lib/replay';
import type { ConsoleStore } from '../stores/console-store';

/** Plays a finished trip's tracked path on the console's map. The car moves
 * through the store (the map draws it at its next frame); this panel only
 * re-renders for its clock, a few times a second. */
export function ReplayControls({ store, booking }: { store: ConsoleStore; booking: string }) {
  const { t } = useTranslation();
  const tracking = useReplayTracking(booking);
  const points = useMemo(() => replayPoints(tracking.data?.points ?? []), [tracking.data]);
  const path = useMemo(() => points.map((point) => [point.lng, point.lat] as [number, number]), [points]);
  const stages = useMemo(() => stageTimes(points), [points]);
  const start = points[0]?.at ?? 0;
  const end = points.at(-1)?.at ?? 0;
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState<ReplaySpeed>(16);
  const [shownAt, setShownAt] = useState(start);
  const clock = useRef(start);

  useEffect(() => {
    clock.current = start;
    setShownAt(start);
    store.setReplay(points.length ? { path, car: replayPosition(points, start) } : null);
  }, [store, points, path, start]);

  useEffect(() => () => store.setReplay(null), [store]);

  useEffect(() => {
    if (!playing) return;
    let frame = 0;
    let last = performance.now();
    let lastShown = 0;
    const step = (time: number) => {
      clock.current = advance(clock.current, time - last, speed, end);
      last = time;
      store.setReplay({ path, car: replayPosition(points, clock.current) });
      if (time - lastShown > 200) {
        lastShown = time;
        setShownAt(clock.current);
      }
      if (clock.current >= end) {
        setShownAt(end);
        setPlaying(false);
        return;
      }
      frame = requestAnimationFrame(step);
    };
    frame = requestAnimationFrame(step);
    return () => cancelAnimationFrame(frame);
  }, [playing, speed, store, path, points, end]);

  const words = (ms: number) => {
    const text = durationText(ms);
    return t(text.key, text.values);
  };
  if (tracking.isPending) return <CircularProgress size={24} />;
  if (tracking.isError) return <ServerErrorAlert error={tracking.error} onRetry={() => void tracking.refetch()} />;
  if (points.length < 2) return <Alert severity="info">{t('dispatch.replay.no_path')}</Alert>;
  const seek = (at: number) => {
    clock.current = at;
    setShownAt(at);
    store.setReplay({ path, car: replayPosition(points, at) });
  };
  return (
    <Stack spacing={1} data-testid="replay">
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
        <IconButton
          onClick={() => {
            if (!playing && clock.current >= end) seek(start);
            setPlaying(!playing);
          }}
          aria-label={playing ? t('dispatch.replay.pause') : t('dispatch.replay.play')}
          data-testid="replay-play"
        >
          {playing ? <PauseIcon /> : <PlayArrowIcon />}
        </IconButton>
        <ToggleButtonGroup size="small" exclusive value={speed} onChange={(_event, value: ReplaySpeed | null) => value && setSpeed(value)} aria-label={t('dispatch.replay.speed')}>
          {REPLAY_SPEEDS.map((value) => (
            <ToggleButton key={value} value={value} data-testid={`replay-speed-${value}`}>
              {t('dispatch.replay.times', { value })}
            </ToggleButton>
          ))}
        </ToggleButtonGroup>
        <Typography variant="body2" sx={{ marginInlineStart: 'auto' }} data-testid="replay-clock">
          {dayjs(shownAt).format('HH:mm:ss')}
        </Typography>
      </Stack>
      <Box sx={{ px: 1 }}>
        <Slider size="small" min={start} max={end} value={shownAt} onChange={(_event, value) => seek(value as number)} aria-label={t('dispatch.replay.position')} />
      </Box>
      <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }} data-testid="replay-stages">
        {stages.map((stage) => (
          <Typography key={`${stage.status}-${stage.at}`} variant="caption" sx={{ fontWeight: shownAt >= stage.at ? 700 : 400 }}>
            {t(`status.${stage.status}`)} {dayjs(stage.at).format('HH:mm:ss')}
            {stage.sinceStart > 0 ? ` (+${words(stage.sinceStart)})` : ''}
          </Typography>
        ))}
      </Stack>
    </Stack>
  );
}
