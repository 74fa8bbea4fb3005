import { MAX_RETRY_AFTER_SECONDS_WHEN_BUSY, retryAfterWhenBusy } from './service-busy.exception';

describe('retryAfterWhenBusy', () => {
  afterEach(() => jest.restoreAllMocks());

  it('spreads the retries of clients refused together over whole seconds from 1 to the most', () => {
    const random = jest.spyOn(Math, 'random');
    const drawn = [0, 0.3, 0.6, 0.99999].map((value) => {
      random.mockReturnValueOnce(value);
      return retryAfterWhenBusy();
    });
    expect(drawn).toEqual([1, 2, 3, MAX_RETRY_AFTER_SECONDS_WHEN_BUSY]);
  });
});
