import { Alert, Box, Chip, CircularProgress, List, ListItem, ListItemText, Stack, Typography } from '@mui/material';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import { ServerErrorAlert } from '@/components/ui/server-error-alert';
import { useSettings } from '@/lib/app-data';
import { entryText, shortId } from '@/lib/dispatch-entries';
import { buildTimeline, useTimeline, type OfferOutcome } from '@/lib/dispatch-timeline';
import { durationText } from '@/lib/durations';
import { distanceIn } from '@/lib/format';

const OUTCOME_COLOURS: Record<OfferOutcome, 'default' | 'success' | 'warning' | 'error' | 'info'> = {
  pending: 'info',
  accepted: 'success',
  declined: 'error',
  expired: 'warning',
  taken: 'default',
  cancelled: 'default',
};

/** A booking's dispatch from storage: its waves, each offered driver with
 * the distance and what became of the offer, and every entry with the time
 * since the one before. Drawn by the live console's drawer and by the
 * booking's page in the panel. */
export function TimelineView({
  booking,
  since,
  onDriver,
  driverName = shortId,
}: {
  booking: string;
  since?: number;
  /** Opens a driver (the console's message dialog); without it names are plain text. */
  onDriver?: (driver: string) => void;
  /** Names a driver (the console's directory, the page's users). */
  driverName?: (driver: string) => string;
}) {
  const { t } = useTranslation();
  const settings = useSettings();
  const timeline = useTimeline(booking);
  const words = (ms: number) => {
    const text = durationText(ms);
    return t(text.key, text.values);
  };
  if (timeline.isPending) return <CircularProgress size={24} />;
  if (timeline.isError) return <ServerErrorAlert error={timeline.error} onRetry={() => void timeline.refetch()} />;
  const built = buildTimeline(timeline.data, since);
  if (built.rows.length === 0) {
    return (
      <Alert severity="info" data-testid="timeline-empty">
        {t('dispatch.timeline.empty')}
      </Alert>
    );
  }
  return (
    <Stack spacing={1.5} data-testid="timeline">
      <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
        {built.firstOfferAfter !== null && <Chip size="small" label={t('dispatch.timeline.first_offer_after', { time: words(built.firstOfferAfter) })} />}
        {built.acceptedAfter !== null && <Chip size="small" color="success" label={t('dispatch.timeline.accepted_after', { time: words(built.acceptedAfter) })} />}
      </Stack>
      {built.waves.map((wave) => (
        <Box key={`${wave.wave}-${wave.at}`} data-testid="timeline-wave" data-by={wave.byAdmin ? 'admin' : 'system'}>
          <Typography variant="subtitle2">
            {wave.byAdmin
              ? t('dispatch.timeline.by_admin', { time: dayjs(wave.at).format('HH:mm:ss') })
              : t('dispatch.timeline.wave', { wave: wave.wave, time: dayjs(wave.at).format('HH:mm:ss') })}
          </Typography>
          <List dense disablePadding>
            {wave.offers.map((offer) => {
              const distance = offer.distanceKm === null ? null : distanceIn(offer.distanceKm, settings);
              return (
                <ListItem
                  key={offer.driver}
                  disableGutters
                  data-testid="timeline-offer"
                  data-outcome={offer.outcome}
                  data-driver={offer.driver}
                  secondaryAction={<Chip size="small" color={OUTCOME_COLOURS[offer.outcome]} label={t(`dispatch.outcome.${offer.outcome}`)} />}
                >
                  <ListItemText
                    primary={
                      onDriver ? (
                        <Box component="button" type="button" onClick={() => onDriver(offer.driver)} sx={{ all: 'unset', cursor: 'pointer', textDecoration: 'underline dotted' }}>
                          {driverName(offer.driver)}
                        </Box>
                      ) : (
                        driverName(offer.driver)
                      )
                    }
                    secondary={[
                      distance ? t(distance.unit, { value: distance.value }) : null,
                      offer.lasted !== null ? t('dispatch.timeline.after', { time: words(offer.lasted) }) : null,
                    ]
                      .filter(Boolean)
                      .join(' · ')}
                  />
                </ListItem>
              );
            })}
          </List>
        </Box>
      ))}
      <Box>
        <Typography variant="subtitle2">{t('dispatch.timeline.events')}</Typography>
        <List dense disablePadding>
          {built.rows.map((row, index) => (
            <ListItem key={`${row.at}-${index}`} disableGutters data-testid="timeline-row" data-kind={row.kind}>
              <ListItemText
                primary={entryText(row.entry, t, driverName)}
                secondary={`${dayjs(row.at).format('HH:mm:ss')}${index > 0 ? ` · +${words(row.sincePrevious)}` : ''}`}
              />
            </ListItem>
          ))}
        </List>
      </Box>
    </Stack>
  );
}
