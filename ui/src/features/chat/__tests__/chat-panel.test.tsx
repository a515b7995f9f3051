import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { apiError, mockApi } from '@/testing/mock-api';
import { renderWithProviders, seededClient, testUser } from '@/testing/test-utils';
import type { ChatMessage } from '@/types/api';
import { ChatPanel, ChatTranscript } from '../components/chat-panel';

const at = new Date(2026, 10, 21, 7, 4).getTime();
const stored = (message: string, from: string, createdAt: number): ChatMessage => ({
  message,
  from,
  type: 'msg',
  msgDate: '',
  msgTime: '',
  source: from === 'user-rider-1' ? 'rider' : 'driver',
  smsId: null,
  createdAt,
});

describe('the chat', () => {
  it('shows both sides with the date as MM:DD:YYYY and times as HH:MM', async () => {
    mockApi({ 'GET /api/v1/bookings/booking-1/chat': () => ({ messages: [stored('Where are you?', 'user-rider-1', at), stored('Two minutes', 'user-driver-1', at + 60_000)] }) });
    renderWithProviders(<ChatPanel bookingId="booking-1" userId="user-rider-1" otherName="Driver 1" />, { client: seededClient(testUser()) });
    const messages = await screen.findAllByTestId('chat-message');
    expect(messages.map((message) => message.getAttribute('data-mine'))).toEqual(['true', 'false']);
    expect(screen.getAllByTestId('chat-date').map((date) => date.textContent)).toEqual(['11:21:2026']);
    expect(screen.getAllByTestId('chat-time').map((time) => time.textContent)).toEqual(['07:04', '07:05']);
  });

  it('sends a message and shows it', async () => {
    const api = mockApi({
      'GET /api/v1/bookings/booking-1/chat': () => ({ messages: [] }),
      'POST /api/v1/bookings/booking-1/chat': ({ body }) => ({ status: 201, body: stored((body as { message: string }).message, 'user-rider-1', at) }),
    });
    const user = userEvent.setup();
    renderWithProviders(<ChatPanel bookingId="booking-1" userId="user-rider-1" otherName="Driver 1" />, { client: seededClient(testUser()) });
    expect(await screen.findByText('No messages yet.')).toBeInTheDocument();
    await user.type(screen.getByTestId('chat-input'), 'I am at the corner');
    await user.click(screen.getByTestId('chat-send'));
    expect(await screen.findByText('I am at the corner')).toBeInTheDocument();
    expect(screen.getByTestId('chat-input')).toHaveValue('');
    await vi.waitFor(() => expect(api.calls.at(-1)?.body).toEqual({ message: 'I am at the corner' }));
  });
});

describe("the booking's chat in the panel", () => {
  it('names each side, the rider on one side and the driver on the other, with nothing to write', async () => {
    mockApi({ 'GET /api/v1/bookings/booking-1/chat': () => ({ messages: [stored('Where are you?', 'user-rider-1', at), stored('Two minutes', 'user-driver-1', at + 60_000)] }) });
    renderWithProviders(<ChatTranscript bookingId="booking-1" names={{ rider: 'Rita Rider', driver: 'Dana Driver' }} />, {
      client: seededClient(testUser({ id: 'admin-1', usertype: 'admin' })),
    });
    const messages = await screen.findAllByTestId('chat-message');
    expect(messages.map((message) => message.getAttribute('data-mine'))).toEqual(['false', 'true']);
    expect(screen.getAllByTestId('chat-sender').map((sender) => sender.textContent)).toEqual(['Rita Rider', 'Dana Driver']);
    expect(screen.queryByTestId('chat-input')).not.toBeInTheDocument();
  });

  it('says so when the panel may not read it', async () => {
    mockApi({ 'GET /api/v1/bookings/booking-1/chat': () => apiError(403, 'not_allowed') });
    renderWithProviders(<ChatTranscript bookingId="booking-1" names={{ rider: 'Rita', driver: 'Dana' }} />, { client: seededClient(testUser({ usertype: 'admin' })) });
    expect(await screen.findByTestId('chat-unavailable')).toHaveTextContent("This booking's chat cannot be read from the panel.");
  });
});
