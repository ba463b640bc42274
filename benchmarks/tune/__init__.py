"""tune checked: on the guide's snippets (validation), against planted models timed end to end
(ground_truth), its own cost (overhead), and the batch sweep one case rests on (batch_plateau)."""
