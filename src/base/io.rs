//! Reads that wait on the disk rather than the CPU.

/// Threads for reads that mostly wait: a disk (or a virtual one) serves
/// many reads at once, and a first build reads every transcript's head
/// before the page cache holds any of them (100,000 small files: 4.4 s
/// on two threads, the cores the build has).
const WAITING_READS: usize = 16;

/// Run `work` where many reads can wait at once: rayon's parallel
/// iterators inside it use a pool of 16 threads made for it, which end
/// with it (a pool kept to the end of the build would keep what the
/// threads' allocator caches hold, too). Without that pool (it could not
/// be made), on the caller's threads.
pub fn many_reads<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(WAITING_READS)
        .thread_name(|i| format!("ccwiki-read-{i}"))
        .build();
    match pool {
        Ok(pool) => pool.install(work),
        Err(_) => work(),
    }
}

#[cfg(test)]
mod tests {
    use rayon::prelude::*;

    #[test]
    fn reads_wait_on_their_own_threads_and_give_every_result() {
        let (threads, sum) = super::many_reads(|| {
            let sum: u64 = (0..10_000u64).into_par_iter().map(|i| i * 3).sum();
            (rayon::current_num_threads(), sum)
        });
        assert_eq!(threads, super::WAITING_READS);
        assert_eq!(sum, 3 * 9_999 * 10_000 / 2);
    }
}
